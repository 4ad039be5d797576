# SPDX-License-Identifier: MIT
# libFuzzer targets (clang only), included by the root CMakeLists when
# -DSTINT_FUZZ=ON. Each tests/fuzz/fuzz_<name>.c becomes build/fuzz/fuzz_<name>,
# linked against a private copy of the library and CLI sources compiled with
# -fsanitize=fuzzer-no-link,address,undefined, so the normal targets of the
# same build tree keep their own flags. An object library, not an archive: the
# command entry points are weak references (commands.h), which never pull an
# archive member. Run them with tests/fuzz/run.sh.
if(NOT CMAKE_C_COMPILER_ID MATCHES "Clang")
  message(WARNING "STINT_FUZZ needs clang (CC=clang); fuzz targets not built")
  return()
endif()

set(STINT_FUZZ_FLAGS -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer -g -O1)
add_library(stint_fuzz_core OBJECT ${STINT_LIB_SOURCES} ${STINT_CLI_SOURCES})
target_include_directories(stint_fuzz_core PUBLIC ${CMAKE_SOURCE_DIR}/include ${CMAKE_SOURCE_DIR}/tools/stint
  PRIVATE ${CMAKE_SOURCE_DIR}/src)
target_compile_options(stint_fuzz_core PRIVATE -fsanitize=fuzzer-no-link ${STINT_FUZZ_FLAGS})
target_compile_definitions(stint_fuzz_core PUBLIC STINT_VERSION_STRING="${PROJECT_VERSION}")
# kilobyte-sized inflate blocks and compressed reads (input.c): small inputs
# reach the block-boundary paths, and a run maps no megabyte buffers
target_compile_definitions(stint_fuzz_core PRIVATE STINT_SMALL_BUFFERS=1)
if(STINT_USE_ISAL)
  target_compile_definitions(stint_fuzz_core PUBLIC STINT_HAVE_ISAL=1)
endif()
if(ZLIB_FOUND)
  target_compile_definitions(stint_fuzz_core PUBLIC STINT_HAVE_ZLIB=1)
endif()
target_link_libraries(stint_fuzz_core PUBLIC Threads::Threads ${CMAKE_DL_LIBS} ${STINT_ISAL_LIB} ${STINT_ZLIB_LIB} m)

file(GLOB STINT_FUZZERS CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/tests/fuzz/fuzz_*.c)
set(STINT_FUZZ_TARGETS "")
foreach(src ${STINT_FUZZERS})
  get_filename_component(name ${src} NAME_WE)
  add_executable(${name} ${src})
  set_target_properties(${name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/fuzz)
  target_compile_options(${name} PRIVATE -fsanitize=fuzzer ${STINT_FUZZ_FLAGS} -Wall -Wextra)
  target_link_options(${name} PRIVATE -fsanitize=fuzzer -fsanitize=address,undefined)
  target_link_libraries(${name} PRIVATE stint_fuzz_core)
  if(name STREQUAL "fuzz_chrome_gz" OR name STREQUAL "fuzz_chrome_split")
    find_package(ZLIB REQUIRED) # (they gzip inputs themselves)
    target_link_libraries(${name} PRIVATE ZLIB::ZLIB)
  endif()
  list(APPEND STINT_FUZZ_TARGETS ${name})
endforeach()
add_custom_target(fuzzers DEPENDS ${STINT_FUZZ_TARGETS})
