#ifndef CPOSTGRES_SHIM_H
#define CPOSTGRES_SHIM_H
#include <libpq-fe.h>
#endif
