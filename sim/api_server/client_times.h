// What a client sees of one sequence when llmsim models the API server in front of the engine
// (sim/api_server/api_frontend.h): times on the replay's clock, from the moment the request
// reached the server to the moment the client had its first and its last chunk.
// Thread-safety: plain values.
#pragma once

#include <cstddef>
#include <functional>

#include "core/clock.h"
#include "core/request.h"

namespace llm {

struct ClientTimes {
  Nanos server_arrival = 0;     // the request reached the server (the trace's arrival)
  Nanos first_token = kNoTime;  // the client had the first output token (kNoTime: none came)
  Nanos finished = kNoTime;     // the client had the stream's end
};

// Told of each sequence that leaves engine `engine` (before that engine's on_finished observers).
using ClientTimesFn =
    std::function<void(size_t engine, const Request& request, const ClientTimes& times)>;

}  // namespace llm
