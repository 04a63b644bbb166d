#ifndef CKioskLinux_SHIM_H
#define CKioskLinux_SHIM_H
// Linux and glibc calls that Swift's Glibc module does not bring in. No library to link: all are in libc.
#include <stddef.h>
#include <fcntl.h>
#include <termios.h>
#include <sys/file.h>
// The kernel's clock state (adjtimex/ntp_adjtime, struct timex, STA_UNSYNC) is in <sys/timex.h>, which the Glibc
// module does not include.
#include <sys/timex.h>

// Pseudo-terminal calls for the PN532 emulator. glibc declares posix_openpt, grantpt, unlockpt and ptsname_r only
// under _XOPEN_SOURCE/_GNU_SOURCE, which Swift's Glibc module does not define, so they are declared here.
extern int posix_openpt(int flags);
extern int grantpt(int fd);
extern int unlockpt(int fd);
extern int ptsname_r(int fd, char *buf, size_t buflen);

#endif
