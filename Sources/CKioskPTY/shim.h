#ifndef CKioskPTY_SHIM_H
#define CKioskPTY_SHIM_H
// Pseudo-terminal calls for the PN532 emulator. glibc declares posix_openpt, grantpt, unlockpt and ptsname_r only
// under _XOPEN_SOURCE/_GNU_SOURCE, which Swift's Glibc module does not define, so they are declared here; the
// symbols themselves are in libc.
#include <stddef.h>
#include <fcntl.h>
#include <termios.h>
#include <sys/file.h>

extern int posix_openpt(int flags);
extern int grantpt(int fd);
extern int unlockpt(int fd);
extern int ptsname_r(int fd, char *buf, size_t buflen);

#endif
