// Placeholder: filled in with the shared version comparison.
#pragma once
