# inferno_set_warnings(target): the project's warning flags, as errors when INFERNO_WERROR is on.
# The flags reach C++ sources only; a target with CUDA sources (the runtime's kernels) gets nvcc's
# spelling of them for those.
function(inferno_set_warnings target)
  set(cxx "$<COMPILE_LANGUAGE:CXX>")
  target_compile_options(${target} PRIVATE "$<${cxx}:-Wall;-Wextra;-Wpedantic;-Wshadow;-Wnon-virtual-dtor;-Wimplicit-fallthrough>")
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
    # GCC 12 reports impossible std::string copies as -Wrestrict at -O2 (GCC bug 105651).
    target_compile_options(${target} PRIVATE "$<${cxx}:-Wno-restrict>")
  endif()
  target_compile_options(${target} PRIVATE "$<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra>")
  if(INFERNO_WERROR)
    target_compile_options(${target} PRIVATE "$<${cxx}:-Werror>"
                                             "$<$<COMPILE_LANGUAGE:CUDA>:-Werror=all-warnings;-Xcompiler=-Werror>")
  endif()
endfunction()

# inferno_component(name SOURCES ... DEPS ...): one static library per compiler stage, so the
# link graph enforces the design's rule that data only flows forward between stages.
function(inferno_component name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  add_library(${name} STATIC ${ARG_SOURCES})
  target_include_directories(${name} PUBLIC "${PROJECT_SOURCE_DIR}/src")
  target_link_libraries(${name} PUBLIC ${ARG_DEPS})
  set_target_properties(${name} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  inferno_set_warnings(${name})
endfunction()
