// micro-icount-engine: the engine's hot paths (ENG/*), linked with libfenec.
#include "scenarios/micro/icount.h"

int main(int argc, char** argv) {
  return fenec::scenarios::micro::icount_main(argc, argv, fenec::scenarios::micro::engine_icount_kernels);
}
