# ctest: the static canopyctl holds none of the canopy API's start-up descriptor registrations
# (proto/CMakeLists.txt, canopy_proto_lazy), so a CLI call does not parse controller.proto's and
# types.proto's descriptors before main. Run as:
#   cmake -DBINARY=<canopyctl> [-DPROTOBUF_LAZY=ON] -P check_lazy_descriptors.cmake
execute_process(COMMAND nm ${BINARY} OUTPUT_VARIABLE symbols RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "nm ${BINARY} failed (${rc})")
endif()
string(REGEX MATCHALL "dynamic_init_dummy_canopy_[A-Za-z0-9_]+" eager "${symbols}")
# With PROTOBUF_LAZY, protobuf's own descriptor.proto too (proto/CMakeLists.txt,
# canopy_protobuf_lazy): 36% of a held sbatch's instructions when registered at start-up.
if(PROTOBUF_LAZY)
  string(REGEX MATCHALL "dynamic_init_dummy_google_2fprotobuf_2fdescriptor_2eproto" eager_pb
    "${symbols}")
  list(APPEND eager ${eager_pb})
endif()
if(eager)
  list(REMOVE_DUPLICATES eager)
  message(FATAL_ERROR "${BINARY} registers these descriptors at start-up: ${eager}; it should "
    "link canopy_proto_lazy in canopy_proto's place (cmake/static_link_launcher.sh) and "
    "protobuf's descriptor.proto from canopy_protobuf_lazy (proto/CMakeLists.txt)")
endif()
# Not a pass by default: the binary must show the API's descriptor tables at all (not stripped).
if(NOT symbols MATCHES "descriptor_table_canopy_")
  message(FATAL_ERROR "${BINARY} shows no descriptor_table_canopy_* symbol: stripped, or not "
    "canopyctl? This check needs its symbols")
endif()
message(STATUS "${BINARY}: no start-up registration of canopy's descriptors")
