#include "accept/accept.h"
