/*
 * TEST-ONLY. Never shipped, never part of a release.
 *
 * Debian 12's wine 8.0 has no bcryptprimitives.dll, from which the standard
 * library of Rust 1.78 and later takes its random numbers (ProcessPrng), so
 * no Rust Windows program starts under it ("bcryptprimitives.dll not found",
 * exit 53). Real Windows (10 and later) and wine 9 have the DLL. For the CI
 * test under wine (tests/windows/run.sh), this stand-in is built beside the
 * .exe under test: ProcessPrng filled from advapi32's RtlGenRandom
 * (SystemFunction036), which wine 8.0 has.
 *
 * Build: x86_64-w64-mingw32-gcc -shared -O2 -o bcryptprimitives.dll shim.c -ladvapi32
 */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length)
{
    /* RtlGenRandom takes a ULONG: fill large requests in pieces. */
    while (length > 0) {
        ULONG chunk = length > 0x40000000 ? 0x40000000 : (ULONG)length;
        if (!SystemFunction036(data, chunk))
            return FALSE;
        data += chunk;
        length -= chunk;
    }
    return TRUE;
}
