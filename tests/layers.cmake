# Fails if a header of the gateway's lower layers reaches a layer above it.
# The client core (client/), the codecs (codec/), fan-out (fanout/) and the
# canonical form (protocol/) sit under the transports: none of their
# headers may include, directly or through any header it includes, the
# transports (ws/, sse/), the HTTP API (api/), TLS (tls/) or the server's
# composition (server.hpp, server_state.hpp, http_session.hpp). Following
# the includes by hand is how the leak of issue 53 hid: client.hpp reached
# the WebSocket write cork through the server's state.
# Run by ctest as:
#   cmake -DSOURCE_DIR=<repository> -P layers.cmake
cmake_minimum_required(VERSION 3.20)
set(src ${SOURCE_DIR}/src)
set(lower client codec fanout protocol)
set(above_pattern
  "^gateway/(ws|sse|api|tls)/|^gateway/(server|server_state|http_session)\\.hpp$")

# The quoted includes of one file, as paths under src/.
function(quoted_includes file out)
  file(STRINGS ${file} lines REGEX "^#include \"")
  set(found "")
  foreach(line IN LISTS lines)
    string(REGEX REPLACE "^#include \"([^\"]+)\".*" "\\1" path "${line}")
    if(EXISTS ${src}/${path})
      list(APPEND found ${path})
    endif()
  endforeach()
  set(${out} ${found} PARENT_SCOPE)
endfunction()

list(JOIN lower "," lower_text)
set(failures "")
set(checked 0)
foreach(layer IN LISTS lower)
  file(GLOB headers RELATIVE ${src} ${src}/gateway/${layer}/*.hpp)
  foreach(header IN LISTS headers)
    math(EXPR checked "${checked} + 1")
    # Breadth-first over the includes, remembering who included whom so the
    # message can show the chain.
    set(queue ${header})
    set(seen ${header})
    set(parent_${header} "")
    while(queue)
      list(POP_FRONT queue current)
      quoted_includes(${src}/${current} next)
      foreach(n IN LISTS next)
        if(n IN_LIST seen)
          continue()
        endif()
        list(APPEND seen ${n})
        set(parent_${n} ${current})
        if(n MATCHES "${above_pattern}")
          set(chain ${n})
          set(at ${current})
          while(at)
            set(chain "${at} -> ${chain}")
            set(at ${parent_${at}})
          endwhile()
          list(APPEND failures "  ${chain}")
        else()
          list(APPEND queue ${n})
        endif()
      endforeach()
    endwhile()
    foreach(s IN LISTS seen)
      unset(parent_${s})
    endforeach()
  endforeach()
endforeach()

if(checked LESS 20)
  message(FATAL_ERROR "checked only ${checked} headers: the layer folders moved?")
endif()
if(failures)
  list(JOIN failures "\n" text)
  message(FATAL_ERROR "headers under gateway/{${lower_text}} reach a layer above them "
    "(move the shared part down, or hold the upper type opaque):\n${text}")
endif()
message(STATUS "${checked} headers under gateway/{client,codec,fanout,protocol}: none reaches above")
