#include "gateway/client/client_id.hpp"

#include "core/random.hpp"

namespace herald::gateway::client {

std::string random_client_id() {
  return random::hex_id(16);
}

}  // namespace herald::gateway::client
