// The worker pool of parallel replays: runs independent tasks (the replays of one capacity-search
// batch, the points of a sweep) on a few threads.
// Thread-safety: run_in_parallel may be called from any thread; the tasks must not share mutable
// state (each replay owns its trace copy, engines and observers).
#pragma once

#include <cstddef>
#include <functional>

namespace llm {

// Calls task(i) for every i in [0, n) on up to `jobs` threads (the calling thread included) and
// returns when all are done. An exception from a task is rethrown afterwards: the one of the
// smallest index, so that what is reported does not depend on `jobs`.
void run_in_parallel(size_t n, int jobs, const std::function<void(size_t)>& task);

}  // namespace llm
