# SPDX-License-Identifier: MIT
# Test registration. Everything is discovered by file name so that adding a test
# never means editing this file:
#   tests/unit/test_<name>.c      one executable each, linked with the library and the CLI modules
#   tests/sh/test_<name>.sh       shell tests (run with bash)
#   tests/cli/<case>/cmd          golden CLI cases, run by tests/cli/run_case.sh
#   tests/compile/                the public header compiled as C11 and C++, enabled and disabled
# Exit code 77 means "skipped" (for instance when ../shared/corpus is absent); each such
# test prints why. Tests that start threads (names matching the regex in
# stint_label_test) are labelled "threads" so that `make test-tsan` runs them
# under ThreadSanitizer.
set(STINT_TEST_ENV
  "STINT_SHARED_DIR=${STINT_SHARED_DIR}"
  "STINT_BIN=$<TARGET_FILE:stint_cli>"
  "STINT_BUILD_DIR=${CMAKE_BINARY_DIR}"
  "STINT_SOURCE_DIR=${CMAKE_SOURCE_DIR}"
  "STINT_C_COMPILER=${CMAKE_C_COMPILER}"
  "STINT_CXX_COMPILER=${CMAKE_CXX_COMPILER}"
  "STINT=1")

# A test's time limit: 300 s, and three times that in a sanitizer build, where
# stint runs 10-40x slower and a test's python side (the oracle) does not get
# faster when the test scales its own work down (sh_test_oracle took 160-195 s
# under ASan in CI and over 300 s here once, in a slow hour).
if(STINT_SANITIZE)
  set(STINT_TEST_TIMEOUT 900)
else()
  set(STINT_TEST_TIMEOUT 300)
endif()

function(stint_label_test name)
  set(labels "")
  if(name MATCHES "thread|fork|proc|ring|session|alloc_failure|writer_faults|lifecycle|sizes")
    list(APPEND labels threads)
  endif()
  set_tests_properties(${name} PROPERTIES ENVIRONMENT "${STINT_TEST_ENV}" SKIP_RETURN_CODE 77
    TIMEOUT ${STINT_TEST_TIMEOUT} LABELS "${labels}")
endfunction()

file(GLOB STINT_UNIT_TESTS CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/tests/unit/test_*.c)
foreach(src ${STINT_UNIT_TESTS})
  get_filename_component(name ${src} NAME_WE)
  add_executable(${name} ${src})
  set_target_properties(${name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)
  target_include_directories(${name} PRIVATE ${CMAKE_SOURCE_DIR}/src ${CMAKE_SOURCE_DIR}/tests/unit)
  target_compile_options(${name} PRIVATE -Wall -Wextra)
  target_link_libraries(${name} PRIVATE stintcli m)
  target_link_options(${name} PRIVATE -Wl,--build-id)
  add_test(NAME ${name} COMMAND ${name})
  stint_label_test(${name})
endforeach()

file(GLOB STINT_SH_TESTS CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/tests/sh/test_*.sh)
foreach(src ${STINT_SH_TESTS})
  get_filename_component(name ${src} NAME_WE)
  add_test(NAME sh_${name} COMMAND bash ${src})
  stint_label_test(sh_${name})
endforeach()

file(GLOB STINT_CLI_CASES CONFIGURE_DEPENDS LIST_DIRECTORIES true ${CMAKE_SOURCE_DIR}/tests/cli/*)
foreach(dir ${STINT_CLI_CASES})
  if(IS_DIRECTORY ${dir} AND EXISTS ${dir}/cmd)
    get_filename_component(name ${dir} NAME)
    add_test(NAME cli_${name} COMMAND bash ${CMAKE_SOURCE_DIR}/tests/cli/run_case.sh ${dir})
    stint_label_test(cli_${name})
  endif()
endforeach()

# The public header must compile cleanly as C11 and as C++ with -Wpedantic -Werror,
# with STINT_ENABLED at 1 and at 0.
math(EXPR STINT_PROJECT_VERSION_NUMBER
  "${PROJECT_VERSION_MAJOR} * 10000 + ${PROJECT_VERSION_MINOR} * 100 + ${PROJECT_VERSION_PATCH}")
foreach(enabled 0 1)
  add_library(compile_c_enabled${enabled} OBJECT ${CMAKE_SOURCE_DIR}/tests/compile/header_c.c)
  target_include_directories(compile_c_enabled${enabled} PRIVATE ${CMAKE_SOURCE_DIR}/include)
  target_compile_options(compile_c_enabled${enabled} PRIVATE -std=c11 -Wall -Wextra -Wpedantic -Werror)
  target_compile_definitions(compile_c_enabled${enabled} PRIVATE STINT_ENABLED=${enabled}
    STINT_PROJECT_VERSION_NUMBER=${STINT_PROJECT_VERSION_NUMBER})
  add_library(compile_cxx_enabled${enabled} OBJECT ${CMAKE_SOURCE_DIR}/tests/compile/header_cxx.cpp)
  target_include_directories(compile_cxx_enabled${enabled} PRIVATE ${CMAKE_SOURCE_DIR}/include)
  target_compile_options(compile_cxx_enabled${enabled} PRIVATE -Wall -Wextra -Wpedantic -Werror)
  target_compile_definitions(compile_cxx_enabled${enabled} PRIVATE STINT_ENABLED=${enabled}
    STINT_PROJECT_VERSION_NUMBER=${STINT_PROJECT_VERSION_NUMBER})
endforeach()
