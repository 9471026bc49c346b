# Read by ctest when it starts (tests/CMakeLists.txt lists one generated
# file per test binary in TEST_INCLUDE_FILES, each calling txp_cases).
#
# txp_cases(NAME BIN TIMEOUT SLOW CMAKE): one ctest entry per cmocka case
# that `BIN --list` prints, named NAME.CASE (CASE without its test_
# prefix), running `BIN --case CASE`: its own process, with TIMEOUT
# seconds, or the SECONDS of a CASE=SECONDS item of the list SLOW.  The
# binary is asked at every ctest run, so the entries are always the
# binary's own cases.
function(txp_cases name bin timeout slow cmake)
  if(NOT EXISTS "${bin}")
    add_test(${name}_NOT_BUILT ${name}_NOT_BUILT)
    return()
  endif()
  execute_process(COMMAND "${bin}" --list RESULT_VARIABLE rc
                  OUTPUT_VARIABLE out ERROR_QUIET TIMEOUT 60)
  if(NOT rc EQUAL 0)
    # Shows the failure, with the binary's own message, under its name.
    add_test(${name}.list "${bin}" --list)
    return()
  endif()
  string(STRIP "${out}" out)
  string(REPLACE "\n" ";" cases "${out}")
  set(unmatched ${slow})
  foreach(case IN LISTS cases)
    string(REGEX REPLACE "^test_" "" short "${case}")
    set(seconds ${timeout})
    foreach(item IN LISTS slow)
      if(item MATCHES "^${short}=([0-9]+)$")
        set(seconds ${CMAKE_MATCH_1})
        list(REMOVE_ITEM unmatched ${item})
      endif()
    endforeach()
    add_test(${name}.${short} "${bin}" --case "${case}")
    set_tests_properties(${name}.${short} PROPERTIES TIMEOUT ${seconds} LABELS ${name})
  endforeach()
  # A SLOW item naming no case (a renamed case) fails instead of
  # silently giving the case the short timeout.
  foreach(item IN LISTS unmatched)
    string(REGEX REPLACE "=.*" "" short "${item}")
    add_test(${name}.SLOW_${short}_is_no_case "${cmake}" -E false)
  endforeach()
endfunction()
