// The fenecdb arm: the same vectors through the database (a collection with
// one VECTOR(dim) @hnsw field), as a user of fenecdb would index them.
//
// build() opens a fresh database in `dir`, creates the collection, lands the
// rows PutBatch 256 at a time (journal on; buffered durability unless
// `durable`), and returns once Database::WaitForIndexes says every vector is
// linked: the whole of it is timed by run_arm, so the figure includes the
// open, the journal and the queue to the linker. search() is Database::Near
// (k, ef), which also reads each answered document. The database is closed
// and its folder removed when the arm goes.
#pragma once

#include <memory>
#include <string>

#include "scenarios/vector/arm.h"

namespace fenec::scenarios::vector {

inline constexpr const char* kFenecDb = "fenecdb-batch";

std::unique_ptr<AnnArm> make_fenecdb_arm(const ArmParams& p, const std::string& dir, bool durable);

}  // namespace fenec::scenarios::vector
