/*
 * bcryptprimitives.dll for Wine 8.0, which lacks it: Go's Windows runtime
 * (1.24 and later) takes its random bytes from ProcessPrng there, and
 * stops at start without it. This one fills the buffer from
 * RtlGenRandom (advapi32's SystemFunction036), which Wine has. Test
 * machines only: Windows itself ships the real DLL.
 */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length)
{
	while (length > 0) {
		ULONG n = length > 0x10000000 ? 0x10000000 : (ULONG)length;
		if (!SystemFunction036(data, n))
			return FALSE;
		data += n;
		length -= n;
	}
	return TRUE;
}
