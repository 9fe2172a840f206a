#include "diagnose/diagnose.h"
