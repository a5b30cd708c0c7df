/* hlo_line.h - one instruction's HLO line as text: its attributes by name.
 *
 * A line is "[ROOT ]name = shape opcode(operands), attr=value, ..." as HLO
 * text writes it (hm_file.text for text input, hm_instr_print's output for
 * a protobuf).  hlo_line_attrs splits what follows the operand list into
 * attributes: a comma at bracket depth 0 (outside strings) starts one, its
 * name runs to the '=', its value to the next such comma or the end, blanks
 * trimmed.  Values are returned as written: replica_groups={{0,1},{2,3}}
 * gives "{{0,1},{2,3}}", metadata={op_name="a"} gives "{op_name=\"a\"}".
 *
 * Nothing is allocated; the spans point into the line.
 */
#ifndef HS_HLO_LINE_H
#define HS_HLO_LINE_H

#include <stddef.h>

typedef struct hlo_line_attr {
	const char *name, *value;
	size_t name_len, value_len;
} hlo_line_attr;

/* Up to `max` attributes of the line into out[]; returns how many the line
 * has (which may be more than max).  0 for a line that is not an
 * instruction. */
int hlo_line_attrs(const char *line, size_t n, hlo_line_attr *out, int max);

/* The value of attribute `name`: 1 and its span, or 0 when the line has
 * none of that name. */
int hlo_line_find_attr(const char *line, size_t n, const char *name, const char **value,
		       size_t *len);

#endif
