// libfreefare (Debian's libfreefare-dev), for the test-support judge only: never linked by a production target.
#include <nfc/nfc.h>
#include <freefare.h>
