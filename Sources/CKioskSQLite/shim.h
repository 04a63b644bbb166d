#ifndef CKioskSQLite_SHIM_H
#define CKioskSQLite_SHIM_H
#include <sqlite3.h>

#endif
