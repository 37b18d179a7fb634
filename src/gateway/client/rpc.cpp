// rpc: an application call relayed to the backend (proxy.rpc_url), and the
// handling every hook's non-result answers share.
#include "gateway/client/client.hpp"
#include "gateway/proxy/room_hooks.hpp"

namespace herald::gateway::client {
using protocol::ErrorCode;

void Client::run(std::uint32_t id, protocol::RpcCmd& cmd) {
  proxy::BackendClient* rpc = backend(proxy::HookKind::rpc);
  if (!rpc) {
    core_.gw.command_errors->inc();
    return reply_error(id, ErrorCode::not_available,
                       "rpc is off on this server (proxy.rpc_url is empty)");
  }
  std::string body =
      proxy::client_request_json(client_id_, user_, "method", cmd.method, cmd.data, meta_json_);
  rpc->post(std::move(body), [this, weak = owner_, id](proxy::BackendAnswer answer) {
    auto alive = weak.lock();
    if (alive && !finished_) on_backend_answer(id, "rpc", answer);
  });
}

void Client::on_backend_answer(std::uint32_t id, std::string_view hook,
                               proxy::BackendAnswer& answer) {
  if (auto* result = std::get_if<proxy::ResultAnswer>(&answer)) {
    return reply(id, protocol::RpcReply{result->json});
  }
  on_backend_refusal(id, hook, answer);
}

void Client::on_backend_refusal(std::uint32_t id, std::string_view hook,
                                proxy::BackendAnswer& answer) {
  core_.gw.command_errors->inc();
  if (auto* error = std::get_if<proxy::ErrorAnswer>(&answer)) {
    return reply_error(id, error->relayed_code(), error->message);
  }
  if (auto* bye = std::get_if<proxy::DisconnectAnswer>(&answer)) {
    return disconnect(bye->code, bye->reason, proxy::backend_disconnect_reconnects(bye->code));
  }
  const auto* failure = std::get_if<proxy::FailureAnswer>(&answer);
  if (!failure) return;  // a result is not a refusal
  reply_error(id, ErrorCode::backend_unavailable, proxy::describe_failure(hook, *failure));
}

void Client::count_bad_answer(proxy::HookKind hook) {
  core_.hooks[hook]->error(proxy::Failure::bad_answer).inc();
}

}  // namespace herald::gateway::client
