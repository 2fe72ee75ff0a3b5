# Writes the ctest file of one GoogleTest binary: one add_test per test, named exactly as
# GoogleTest names it (`Suite.Test`, `Prefix/Suite.Test/param`, `Suite/Type.Test`), which is
# also the --gtest_filter that runs it alone. Run after each link (tests/CMakeLists.txt).
#
# CMake's gtest_discover_tests appends the parameter's printed value to the names of
# parameterised tests ("…/tiny_0  # GetParam() = 16-byte object <4B-31 …>") and folds typed
# tests with named types into "Curve.Test<Curve/G1.  # TypeParam = …>"; this script keeps the
# name before the comment.
#
# -D EXE=<test binary> -D CTEST_FILE=<output> -D WORKDIR=<dir> -D TIMEOUT=<s>
execute_process(COMMAND "${EXE}" --gtest_list_tests
  WORKING_DIRECTORY "${WORKDIR}" TIMEOUT ${TIMEOUT}
  OUTPUT_VARIABLE listing ERROR_VARIABLE errors RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${EXE} --gtest_list_tests failed (${rc}):\n${listing}${errors}")
endif()

string(REPLACE ";" "\\;" listing "${listing}")
string(REPLACE "\n" ";" lines "${listing}")
set(script "")
set(count 0)
foreach(line IN LISTS lines)
  string(REGEX REPLACE " *#.*$" "" bare "${line}")  # the GetParam / TypeParam comment
  if(bare MATCHES "^([A-Za-z0-9_/]+)\\.$")          # a suite: "Suite." or "Prefix/Suite."
    set(suite "${CMAKE_MATCH_1}")
  elseif(bare MATCHES "^  ([A-Za-z0-9_/]+)$")        # a test of the current suite
    set(name "${suite}.${CMAKE_MATCH_1}")
    string(APPEND script "add_test([=[${name}]=] [=[${EXE}]=] [=[--gtest_filter=${name}]=] "
      "--gtest_also_run_disabled_tests)\n"
      "set_tests_properties([=[${name}]=] PROPERTIES WORKING_DIRECTORY [=[${WORKDIR}]=] "
      "SKIP_REGULAR_EXPRESSION [=[\\[  SKIPPED \\]]=])\n")
    if(name MATCHES "(^|[./])DISABLED_")
      string(APPEND script "set_tests_properties([=[${name}]=] PROPERTIES DISABLED TRUE)\n")
    endif()
    math(EXPR count "${count} + 1")
  elseif(NOT bare STREQUAL "" AND NOT line MATCHES "^Running main\\(\\)")
    message(FATAL_ERROR "${EXE} --gtest_list_tests: cannot read the line '${line}'")
  endif()
endforeach()
if(count EQUAL 0)
  message(FATAL_ERROR "${EXE} --gtest_list_tests listed no tests")
endif()
file(WRITE "${CTEST_FILE}" "${script}")
