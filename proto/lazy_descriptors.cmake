# Writes OUT: the generated IN (a .pb.cc) without its static AddDescriptorsRunner, so the file's
# descriptor is registered on first use rather than at start-up (CMakeLists.txt here says why).
# Fails unless IN has exactly one, so a protobuf whose generated code differs is noticed.
# Run as: cmake -DIN=x.pb.cc -DOUT=x.lazy.pb.cc -P lazy_descriptors.cmake
file(READ ${IN} code)
set(runner_regex
  "PROTOBUF_ATTRIBUTE_INIT_PRIORITY2 static ::_pbi::AddDescriptorsRunner dynamic_init_dummy_[A-Za-z0-9_]+\\(&descriptor_table_[A-Za-z0-9_]+\\);")
string(REGEX MATCHALL "${runner_regex}" runners "${code}")
list(LENGTH runners count)
if(NOT count EQUAL 1)
  message(FATAL_ERROR "${IN}: expected one static AddDescriptorsRunner, found ${count}; "
    "has protobuf's generated code changed? (proto/lazy_descriptors.cmake)")
endif()
string(REGEX REPLACE "${runner_regex}"
  "// (descriptor registered on first use: proto/lazy_descriptors.cmake)" code "${code}")
file(WRITE ${OUT} "${code}")
