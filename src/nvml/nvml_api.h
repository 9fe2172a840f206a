// The slice of NVML's C ABI gpuplan calls, declared from the facts in
// shared/reference/nvml-abi.txt (symbol names, signatures, enum values, struct layouts measured
// on x86_64 LP64) rather than from NVIDIA's header, so the build needs no CUDA toolkit. Private
// to src/nvml and to the fake library in tests/fake_nvml, which answers these same calls; the
// static_asserts pin every layout to the measured sizes and offsets so both sides cannot drift.
#pragma once

#include <cstddef>
#include <cstdint>

namespace gpuplan::nvml::api {

// nvmlReturn_t and every NVML enum are C enums: 4 bytes, passed as int.
using Return = int;
using Enum = int;
struct DeviceSt;           // opaque, as struct nvmlDevice_st
using Device = DeviceSt*;  // nvmlDevice_t

// nvmlReturn_t values.
constexpr Return kSuccess = 0;
constexpr Return kErrorUninitialized = 1;
constexpr Return kErrorInvalidArgument = 2;
constexpr Return kErrorNotSupported = 3;
constexpr Return kErrorNoPermission = 4;
constexpr Return kErrorNotFound = 6;
constexpr Return kErrorInsufficientSize = 7;
constexpr Return kErrorDriverNotLoaded = 9;
constexpr Return kErrorLibraryNotFound = 12;
constexpr Return kErrorFunctionNotFound = 13;
constexpr Return kErrorGpuIsLost = 15;
constexpr Return kErrorUnknown = 999;

// nvmlTemperatureSensors_t, nvmlTemperatureThresholds_t, nvmlClockType_t.
constexpr Enum kTemperatureGpu = 0;
constexpr Enum kTemperatureThresholdShutdown = 0;
constexpr Enum kTemperatureThresholdSlowdown = 1;
constexpr Enum kClockSm = 1;
constexpr Enum kClockMem = 2;

// nvmlMemoryErrorType_t, nvmlEccCounterType_t, nvmlPageRetirementCause_t, nvmlEnableState_t.
constexpr Enum kMemoryErrorCorrected = 0;
constexpr Enum kMemoryErrorUncorrected = 1;
constexpr Enum kVolatileEcc = 0;
constexpr Enum kAggregateEcc = 1;
constexpr Enum kRetiredMultipleSingleBit = 0;
constexpr Enum kRetiredDoubleBit = 1;
constexpr Enum kFeatureDisabled = 0;
constexpr Enum kFeatureEnabled = 1;

// nvmlNvLinkErrorCounter_t: the data-link counters nvmlDeviceGetNvLinkErrorCounter reads per link.
constexpr Enum kNvLinkErrorDlReplay = 0;
constexpr Enum kNvLinkErrorDlRecovery = 1;
constexpr Enum kNvLinkErrorDlCrcFlit = 2;
constexpr Enum kNvLinkErrorDlCrcData = 3;

// Field ids of nvmlDeviceGetFieldValues (nvml.h NVML_FI_*) and nvmlValueType_t.
constexpr unsigned kFieldMemoryTemp = 82;  // NVML_FI_DEV_MEMORY_TEMP, HBM temperature in °C
constexpr Enum kValueTypeDouble = 0;
constexpr Enum kValueTypeUnsignedInt = 1;
constexpr Enum kValueTypeUnsignedLong = 2;
constexpr Enum kValueTypeUnsignedLongLong = 3;
constexpr Enum kValueTypeSignedLongLong = 4;
constexpr Enum kValueTypeSignedInt = 5;

// Buffer sizes the header names (the larger _V2 ones where two exist).
constexpr unsigned kDeviceNameBufferSize = 96;
constexpr unsigned kDeviceUuidBufferSize = 96;
constexpr unsigned kDeviceSerialBufferSize = 30;
constexpr unsigned kDevicePartNumberBufferSize = 80;
constexpr unsigned kDeviceVbiosBufferSize = 32;
constexpr unsigned kSystemDriverVersionBufferSize = 80;
constexpr unsigned kSystemNvmlVersionBufferSize = 80;

// NVML_NVLINK_MAX_LINKS of the 11.8–13.2 headers; drivers answer INVALID_ARGUMENT past their own.
constexpr unsigned kMaxNvLinks = 18;
constexpr unsigned long long kValueNotAvailable = static_cast<unsigned long long>(-1);

// nvmlPciInfo_t, the argument of GetPciInfo_v3 and _v2. Not of the legacy nvmlDeviceGetPciInfo:
// it predates busId and fills the older layout, busIdLegacy ("%04X:%02X:%02X.0") through
// pciSubSystemId (the first 36 bytes here) and, on old drivers, reserved words after them,
// never a bus id at offset 36. A caller zeroes the struct and falls back to bus_id_legacy when
// bus_id is empty.
struct PciInfo {
  char bus_id_legacy[16];
  unsigned domain;
  unsigned bus;
  unsigned device;
  unsigned pci_device_id;  // device id << 16 | vendor id
  unsigned pci_subsystem_id;
  char bus_id[32];
};
static_assert(sizeof(PciInfo) == 68 && offsetof(PciInfo, pci_device_id) == 28 && offsetof(PciInfo, bus_id) == 36);

struct Utilization {  // nvmlUtilization_t
  unsigned gpu;
  unsigned memory;
};
static_assert(sizeof(Utilization) == 8);

struct Memory {  // nvmlMemory_t (v1): bytes; used = reserved + allocated
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
};
static_assert(sizeof(Memory) == 24 && offsetof(Memory, used) == 16);

struct Temperature {  // nvmlTemperature_v1_t, argument of nvmlDeviceGetTemperatureV
  unsigned version;
  Enum sensor_type;
  int temperature;
};
static_assert(sizeof(Temperature) == 12);
constexpr unsigned kTemperatureV1 = sizeof(Temperature) | (1u << 24);  // NVML_STRUCT_VERSION(Temperature, 1)
static_assert(kTemperatureV1 == 0x0100000C);

struct ProcessInfoV1 {  // nvmlProcessInfo_v1_t, written by the legacy GetComputeRunningProcesses
  unsigned pid;
  unsigned long long used_gpu_memory;  // bytes, or kValueNotAvailable
};
static_assert(sizeof(ProcessInfoV1) == 16 && offsetof(ProcessInfoV1, used_gpu_memory) == 8);

struct ProcessInfoV2 {  // nvmlProcessInfo_v2_t, written by _v2 (and by _v3 on most drivers)
  unsigned pid;
  unsigned long long used_gpu_memory;
  unsigned gpu_instance_id;  // 0xFFFFFFFF when not MIG
  unsigned compute_instance_id;
};
static_assert(sizeof(ProcessInfoV2) == 24 && offsetof(ProcessInfoV2, gpu_instance_id) == 16);

// nvmlFieldValue_t (nvml.h since 9.x; same layout in every header since): the caller sets
// field_id (and scope_id, a link for per-link fields); NVML fills the rest, with a return code
// per field. The value is nvmlValue_t, a union of 8 bytes read by value_type.
struct FieldValue {
  unsigned field_id;
  unsigned scope_id;
  long long timestamp;     // µs since 1970
  long long latency_usec;
  Enum value_type;
  Return nvml_return;
  union {
    double d;
    unsigned ui;
    unsigned long ul;
    unsigned long long ull;
    long long sll;
    int si;
  } value;
};
static_assert(sizeof(FieldValue) == 40 && offsetof(FieldValue, value_type) == 24 && offsetof(FieldValue, value) == 32);

// Signatures, one alias per shape; several symbols share a shape.
using InitFn = Return (*)();
using ShutdownFn = Return (*)();
using ErrorStringFn = const char* (*)(Return);
using SystemStringFn = Return (*)(char*, unsigned);  // driver version, NVML version
using SystemIntFn = Return (*)(int*);                // CUDA driver version
using CountFn = Return (*)(unsigned*);
using HandleByIndexFn = Return (*)(unsigned, Device*);
using DeviceStringFn = Return (*)(Device, char*, unsigned);      // name, UUID, serial, part number, VBIOS
using DeviceUintFn = Return (*)(Device, unsigned*);              // link gen/width, power, replays
using DeviceUint64Fn = Return (*)(Device, unsigned long long*);  // clocks event reasons
using PciInfoFn = Return (*)(Device, PciInfo*);
using MemoryFn = Return (*)(Device, Memory*);
using UtilizationFn = Return (*)(Device, Utilization*);
using TemperatureFn = Return (*)(Device, Enum, unsigned*);  // also thresholds
using TemperatureVFn = Return (*)(Device, Temperature*);
using ClockFn = Return (*)(Device, Enum, unsigned*);
using EccModeFn = Return (*)(Device, Enum*, Enum*);
using TotalEccFn = Return (*)(Device, Enum, Enum, unsigned long long*);
using RetiredPagesFn = Return (*)(Device, Enum, unsigned*, unsigned long long*);
using EnableStateFn = Return (*)(Device, Enum*);
using RemappedRowsFn = Return (*)(Device, unsigned*, unsigned*, unsigned*, unsigned*);
using NvLinkStateFn = Return (*)(Device, unsigned, Enum*);
using TopologyFn = Return (*)(Device, Device, Enum*);
// The process calls take a pointer whose element layout depends on the symbol; void* here.
using ProcessesFn = Return (*)(Device, unsigned*, void*);
using FieldValuesFn = Return (*)(Device, int, FieldValue*);
using NvLinkErrorCounterFn = Return (*)(Device, unsigned, Enum, unsigned long long*);

}  // namespace gpuplan::nvml::api
