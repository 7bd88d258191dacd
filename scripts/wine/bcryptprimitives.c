// A stand-in for Windows' bcryptprimitives.dll, for Wine 8 only (Debian 12's
// wine64), which has none: Go's runtime (1.22 and later) loads it at start
// and throws "bcryptprimitives.dll not found" without it. ProcessPrng has
// filled buffers with random bytes since Windows 10; RtlGenRandom
// (SystemFunction036 in advapi32) does the same on every Windows and Wine.
// scripts/platforms.sh builds it with mingw and copies it into a fresh
// WINEPREFIX; it is never part of the driver.
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buf, ULONG len);

BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len) {
	// RtlGenRandom takes a ULONG: fill larger requests in pieces.
	while (len > 0) {
		ULONG n = len > 0x40000000 ? 0x40000000 : (ULONG)len;
		if (!SystemFunction036(data, n)) return FALSE;
		data += n;
		len -= n;
	}
	return TRUE;
}
