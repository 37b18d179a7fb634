// Centrifugo's channels: the rooms with subscribers over the whole
// service, each with how many subscriptions it has. Every node knows only
// its own (client/node_census.hpp), so in a cluster the asking node
// surveys the others (broker/survey.hpp) and adds their answers to its
// own; with the embedded broker its own census is the answer.
//
// The question is "channels <pattern>" and the answer one line per room,
// "<subscriptions> <room>": room names have no spaces or newlines
// (protocol/room_name.cpp), and a text this plain needs no JSON parser on
// the asking node.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "gateway/client/node_census.hpp"

namespace herald::gateway::api {

using RoomCounts = std::map<std::string, std::uint64_t>;

// Whether `room` matches Centrifugo's `pattern` as fnmatch(3) reads it: `*`
// any run of characters, `?` one, `[...]` a class, `\` escapes; an empty
// pattern matches every room.
[[nodiscard]] bool room_matches(const std::string& pattern, const std::string& room);

[[nodiscard]] std::string channels_question(std::string_view pattern);
// This node's answer to a survey's `question`: its rooms matching the
// pattern of a channels question; empty for a question it does not know
// (a node of a later version asking something new).
[[nodiscard]] std::string answer_survey(const client::NodeCensus& census,
                                        std::string_view question);
// This node's rooms matching `pattern`.
[[nodiscard]] RoomCounts local_rooms(const client::NodeCensus& census, std::string_view pattern);
// Adds the rooms of another node's answer into `into`; false (and `into`
// partly added to) when a line is not "<count> <room>".
[[nodiscard]] bool add_answer(std::string_view answer, RoomCounts& into);
// {"channels":{"<room>":{"num_clients":N},...}}, the result Centrifugo
// gives.
[[nodiscard]] std::string channels_result(const RoomCounts& rooms);

}  // namespace herald::gateway::api
