// Statistics over a bench's repetitions, shared by every scenario and the CI
// detector.
#pragma once

#include <vector>

namespace fenec::kit {

// The median (the mean of the middle two for an even count); 0 if empty.
double median(std::vector<double> v);

}  // namespace fenec::kit
