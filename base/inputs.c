/* inputs.c - see inputs.h.  An open-addressing table keyed by (st_dev,
 * st_ino), grown at half full, under one mutex: readers of several threads
 * (a folder queried with --threads) note their files at once. */
#include "inputs.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"

typedef struct {
	dev_t dev;
	ino_t ino;
	char *name; /* NULL: the slot is free */
} input_slot;

static pthread_mutex_t inputs_mu = PTHREAD_MUTEX_INITIALIZER;
static input_slot *slots;
static size_t n_slots, n_used; /* n_slots: 0 or a power of two */

static size_t slot_of(const input_slot *tab, size_t cap, dev_t dev, ino_t ino)
{
	uint64_t k[2] = {(uint64_t)dev, (uint64_t)ino};
	uint64_t h = hs_fnv1a_bytes(k, sizeof k, HS_FNV_BASIS);
	size_t i = (size_t)(h ^ h >> 29) & (cap - 1);

	while (tab[i].name && !(tab[i].dev == dev && tab[i].ino == ino))
		i = (i + 1) & (cap - 1);
	return i;
}

/* Room for one more; -1 when out of memory (the table is unchanged). */
static int grow(void)
{
	if (n_slots && (n_used + 1) * 2 <= n_slots)
		return 0;
	size_t cap = n_slots ? n_slots * 2 : 64;
	input_slot *tab = calloc(cap, sizeof *tab);
	if (!tab)
		return -1;
	for (size_t i = 0; i < n_slots; i++)
		if (slots[i].name)
			tab[slot_of(tab, cap, slots[i].dev, slots[i].ino)] = slots[i];
	free(slots);
	slots = tab;
	n_slots = cap;
	return 0;
}

static int note(const struct stat *st, const char *path, hs_error *err)
{
	int rc = 0;

	if (!S_ISREG(st->st_mode))
		return 0;
	pthread_mutex_lock(&inputs_mu);
	if (!n_slots || !slots[slot_of(slots, n_slots, st->st_dev, st->st_ino)].name) {
		char *name = strdup(path);
		if (!name || grow() < 0) {
			free(name);
			rc = hs_fail(err, HS_ENOMEM, "%s: out of memory noting it as an input", path);
		} else {
			input_slot *s = &slots[slot_of(slots, n_slots, st->st_dev, st->st_ino)];
			s->dev = st->st_dev;
			s->ino = st->st_ino;
			s->name = name;
			n_used++;
		}
	}
	pthread_mutex_unlock(&inputs_mu);
	return rc;
}

int hs_input_note_fd(int fd, const char *path, hs_error *err)
{
	struct stat st;

	return fstat(fd, &st) == 0 ? note(&st, path, err) : 0;
}

int hs_input_note_path(const char *path, hs_error *err)
{
	struct stat st;

	return stat(path, &st) == 0 ? note(&st, path, err) : 0;
}

int hs_input_find(const struct stat *st, char *name, size_t cap)
{
	int found = 0;

	pthread_mutex_lock(&inputs_mu);
	if (n_slots) {
		const input_slot *s = &slots[slot_of(slots, n_slots, st->st_dev, st->st_ino)];
		if (s->name) {
			found = 1;
			if (cap)
				snprintf(name, cap, "%s", s->name);
		}
	}
	pthread_mutex_unlock(&inputs_mu);
	return found;
}

void hs_inputs_clear(void)
{
	pthread_mutex_lock(&inputs_mu);
	for (size_t i = 0; i < n_slots; i++)
		free(slots[i].name);
	free(slots);
	slots = NULL;
	n_slots = n_used = 0;
	pthread_mutex_unlock(&inputs_mu);
}
