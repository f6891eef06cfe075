// libFuzzer's driver entry (compiler-rt FuzzerInterface.h). SwiftPM links an executable
// target's entry as <Target>_main, so each harness defines that symbol and hands control to
// libFuzzer here instead of relying on libFuzzer's own `main`.
#include <stddef.h>
#include <stdint.h>
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));
