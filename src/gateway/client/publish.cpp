// publish: the checks (client/publish_checks.hpp), the rate, the publish
// hook where the namespace asks it, then the broker (moderation runs behind
// it: moderation/moderating_broker.hpp). The hook's answers are acted on in
// the order the publications came (proxy/answers_in_order.hpp), so one
// connection's publications keep their order whatever the backend does.
#include "gateway/client/client.hpp"
#include "gateway/client/publish_checks.hpp"
#include "gateway/proxy/room_hooks.hpp"

namespace herald::gateway::client {

void Client::run(std::uint32_t id, protocol::PublishCmd& cmd) {
  if (auto refused = publish_refusal(core_.options, claims_, user_, cmd.room, cmd.data.size())) {
    return reply_error(id, refused->code, refused->message);
  }
  if (!check_private(id, cmd.room)) return;
  if (!within_publish_rate(id)) return;
  if (auto refused = unasked_hook(proxy::HookKind::publish, cmd.room)) {
    return reply_error(id, refused->code, refused->message);
  }
  if (core_.options.room_options(cmd.room).publish_proxy) return proxy_publish(id, cmd);
  publish_to_broker(id, std::move(cmd.room), std::move(cmd.data));
}

void Client::publish_to_broker(std::uint32_t id, std::string room, std::string data,
                               bool skip_history) {
  protocol::PublishRequest req{std::move(room), std::move(data), info_json_};
  req.skip_history = skip_history;
  core_.broker->publish(shard_core_.index, std::move(req),
                        [this, hold = hold(), id](protocol::PublishResult r) {
                          if (finished_) return;
                          if (r.error) return reply_error(id, r.error->code, r.error->message);
                          reply(id, protocol::PublishReply{r});
                        });
}

void Client::proxy_publish(std::uint32_t id, protocol::PublishCmd& cmd) {
  std::string body =
      proxy::client_request_json(client_id_, user_, "room", cmd.room, cmd.data, meta_json_);
  const proxy::AnswersInOrder::Place place = publish_answers_.enter();
  backend(proxy::HookKind::publish)
      ->post(std::move(body), [this, weak = owner_, id, place, room = std::move(cmd.room),
                               data = std::move(cmd.data)](proxy::BackendAnswer answer) mutable {
        auto alive = weak.lock();
        if (!alive) return;
        auto act = [this, alive, id, room = std::move(room), data = std::move(data),
                    answer = std::make_shared<proxy::BackendAnswer>(std::move(answer))]() mutable {
          if (!finished_) on_publish_answer(id, std::move(room), std::move(data), *answer);
        };
        publish_answers_.arrive(place, std::move(act));
      });
}

void Client::on_publish_answer(std::uint32_t id, std::string room, std::string data,
                               proxy::BackendAnswer& answer) {
  auto* result = std::get_if<proxy::ResultAnswer>(&answer);
  if (!result) return on_backend_refusal(id, "publish", answer);
  auto read = proxy::read_publish_result(result->json);
  if (auto* wrong = std::get_if<std::string>(&read)) {
    count_bad_answer(proxy::HookKind::publish);
    proxy::BackendAnswer bad = proxy::FailureAnswer{proxy::Failure::bad_answer, *wrong};
    return on_backend_refusal(id, "publish", bad);
  }
  auto& grant = std::get<proxy::PublishGrant>(read);
  if (grant.data_json) {
    // The namespace's limit holds for what is stored, whoever wrote it.
    const std::size_t max = core_.options.room_options(room).max_publication_bytes;
    if (grant.data_json->size() > max) {
      count_bad_answer(proxy::HookKind::publish);
      proxy::BackendAnswer bad =
          proxy::FailureAnswer{proxy::Failure::bad_answer,
                               "result.data is " + std::to_string(grant.data_json->size()) +
                                   " bytes; max_publication_bytes is " + std::to_string(max)};
      return on_backend_refusal(id, "publish", bad);
    }
    data = std::move(*grant.data_json);
  }
  publish_to_broker(id, std::move(room), std::move(data), grant.skip_history);
}

}  // namespace herald::gateway::client
