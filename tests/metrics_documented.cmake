# Fails unless docs/metrics.md names every metric family the sources
# register: each string literal "herald_<name>" or "process_<name>" in
# src/ and apps/ that is a family name (the first argument of a registry
# call; log fields never start with these prefixes) must appear on the page
# as `<name>`. A new metric without its line on the page is then a red test,
# not an undocumented series.
# Run by ctest as:
#   cmake -DSOURCE_DIR=<repository> -P metrics_documented.cmake
file(GLOB_RECURSE sources ${SOURCE_DIR}/src/*.cpp ${SOURCE_DIR}/src/*.hpp
  ${SOURCE_DIR}/apps/*.cpp ${SOURCE_DIR}/apps/*.hpp)
file(READ ${SOURCE_DIR}/docs/metrics.md page)
set(names "")
foreach(f IN LISTS sources)
  file(STRINGS ${f} lines REGEX "\"(herald|process)_[a-z_]+\"")
  foreach(line IN LISTS lines)
    string(REGEX MATCHALL "\"(herald|process)_[a-z_]+\"" found "${line}")
    foreach(q IN LISTS found)
      string(REPLACE "\"" "" name "${q}")
      list(APPEND names ${name})
    endforeach()
  endforeach()
endforeach()
list(REMOVE_DUPLICATES names)
list(LENGTH names count)
if(count LESS 50)
  message(FATAL_ERROR "found only ${count} metric names in the sources: the pattern is stale")
endif()
set(missing "")
foreach(name IN LISTS names)
  string(FIND "${page}" "`${name}`" at)
  if(at EQUAL -1)
    list(APPEND missing ${name})
  endif()
endforeach()
if(missing)
  string(REPLACE ";" ", " missing "${missing}")
  message(FATAL_ERROR "docs/metrics.md does not name these metrics the sources register: "
    "${missing}. Add a line for each (name, type, labels, meaning).")
endif()
message(STATUS "docs/metrics.md names all ${count} metric families")
