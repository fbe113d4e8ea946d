// micro-icount: the MM kernels alone, in a binary that does not load libfenec
// (icount.cc says why that matters to the counts).
#include "scenarios/micro/icount.h"

int main(int argc, char** argv) {
  return fenec::scenarios::micro::icount_main(argc, argv, fenec::scenarios::micro::mm_icount_kernels);
}
