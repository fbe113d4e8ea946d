// Before anything is timed: both systems hold every row asked, and answer a
// get by id and a filter alike, so the two are timed doing the same work.
#pragma once

#include <string>

#include "scenarios/requests/dataset.h"

namespace fenec::scenarios::requests {

// Counts fenec-server's rows (and PostgreSQL's, unless `conninfo` is "")
// against the dataset's, then asks both `draws` gets by id and `draws`
// filters and compares their rows. "" or the first difference.
std::string CheckLoaded(int port, const std::string& conninfo, const Dataset& d, int draws);

// fenec-server's NEAR (the @hnsw graph) against the exact top 10 over the
// dataset's rows, computed here: the mean share of the exact ids it
// answered, over every query vector. "" or why not.
std::string NearRecall(int port, const Dataset& d, double* recall);

}  // namespace fenec::scenarios::requests
