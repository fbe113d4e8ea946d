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

}  // namespace fenec::scenarios::requests
