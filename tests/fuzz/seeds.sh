# Sourced by tests/fuzz/run.sh (make fuzz) and tests/suites/fuzz_replay.sh:
# real_seeds TARGET prints the real files of tests/data that seed TARGET,
# one per line, beside its corpus tests/fuzz/corpus/TARGET/ (which keeps
# small cuts and every input the fuzzer found):
#   hlo_text   every HLO text module (tests/data/hlo/*.hlo)
#   hlo_proto  every binary module and raw TpuGraphs protobuf (*.pb), and
#              the small modules of the real XLA dump (xz-compressed HloProto)
#   pbtxt      the real dump's target configs and autotune results (.pbtxt.xz)
#   npz        every dataset .npz and every reference .npz of the raw data
#   query      none: its inputs are lines of the query language
real_seeds() {
	case $1 in
	hlo_text) ls tests/data/hlo/*.hlo ;;
	hlo_proto) ls tests/data/hlo/*.pb tests/data/raw/*.pb tests/data/xla_dump/*/dump/module_00[0-3]*.hlo.pb.xz ;;
	pbtxt) ls tests/data/xla_dump/*/dump/*.pbtxt.xz ;;
	npz) find tests/data/tpugraphs tests/data/raw -name '*.npz' | sort ;;
	esac 2>/dev/null
}
