/* hlo_proto_conv.h - decoded protobuf-c messages into hm_* structures;
 * used by hlo_proto.c only.  Strings and arrays are copied into the arena,
 * so the decoded message can be freed right after. */
#ifndef HS_HLO_PROTO_CONV_H
#define HS_HLO_PROTO_CONV_H

#include "hlo_module.h"
#include "loader/proto/hlo.pb-c.h"
#include "loader/proto/tuning.pb-c.h"

typedef struct hp_conv {
	hs_arena *a;
	int failed;            /* out of memory */
	const char *bad;       /* what had a count too large for an int, or NULL */
} hp_conv;

/* Fields a proto leaves out count as XLA's defaults (0); parameter_number,
 * feature_group_count and batch_group_count absent are HM_NONE. */
void hp_conv_instr(hp_conv *c, const Xla__HloInstructionProto *p, hm_instr *in);
void hp_conv_run(hp_conv *c, const TpuGraphs__ConfigProfile *p, hm_run *run);

#endif
