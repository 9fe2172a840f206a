// The catalog's GPU entry for a PCI function: gpu entries list the vendor:device ids of their part
// in `pci_ids` ("10de:20b2"), the way acceptance and diagnosis tell an SXM module from a PCIe card
// on the bus. A caller may rely on: ids compare as lowercase four-digit hex; a function no entry
// lists has no entry (nullptr), never a guess.
#pragma once

#include <cstdint>
#include <string>

#include "catalog/catalog.h"

namespace gpuplan::catalog {

// "10de:20b2": the form `pci_ids` lists, lowercase four-digit hex.
std::string pci_id(uint16_t vendor, uint16_t device);

// The gpu entry listing vendor:device in its pci_ids; nullptr when none does.
const Entry* gpu_by_pci_id(const Catalog& catalog, uint16_t vendor, uint16_t device);

}  // namespace gpuplan::catalog
