// The kernel's clock state (adjtimex/ntp_adjtime, struct timex, STA_UNSYNC) is in <sys/timex.h>, which the Glibc
// module does not include. No library to link: these are in libc.
#include <sys/timex.h>
