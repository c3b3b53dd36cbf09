/* Test-only stand-in for Windows' bcryptprimitives.dll, which Wine 8.0 lacks: Rust's standard library
 * (1.78+) takes its random bytes from ProcessPrng there, so no Rust .exe starts under Wine 8.0 without it.
 * ProcessPrng is served by RtlGenRandom (advapi32's SystemFunction036), which Wine has. Built by
 * scripts/test-windows and put beside the test binaries; never shipped. */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length) {
    while (length > 0) {
        ULONG chunk = length > 0x10000000 ? 0x10000000 : (ULONG)length;
        if (!SystemFunction036(data, chunk)) return FALSE;
        data += chunk;
        length -= chunk;
    }
    return TRUE;
}
