// make io-bench: iobench's default characterization of the disk under --dir,
// reproducing IO-1, IO-2, IO-3, IO-4, IO-5 and IO-7 with a verdict for each
// (run.h). Sized for minutes (--quick: about one, without IO-3).
#include "iobench/kit/harness.h"
#include "scenarios/io/run.h"

int main(int argc, char** argv) {
  fenec::kit::Harness h("io",
                        "io-bench: what a durable write costs on this disk (IO-1..IO-5, IO-7). Every cell runs --reps "
                        "times, interleaved; each verdict checks ratios of paired repetitions, with their 95% "
                        "intervals, against the finding's line: reproduced (every check clears its line), partly "
                        "reproduced, not reproduced, inconclusive (an interval holds a line), or not applicable here "
                        "(IO-3 in --quick, IO-5 on a coherent mount)");
  // 5 repetitions in quick mode too: a disk here now and then serves one
  // repetition of a cell at a fraction of its rate, and at 3 repetitions one
  // such cell carries the interval across its line. Quick cells stay short.
  h.set_default_reps(5, 5);
  if (const int rc = h.parse(argc, argv); rc >= 0) return rc;
  return fenec::scenarios::io::run(h);
}
