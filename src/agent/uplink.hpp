#pragma once
// The agent's telemetry going up the broker's channel: producers on threads
// of their own (kube_events.hpp, pod_logs.hpp) hand each frame to an Uplink,
// which queues it, bounded, for the channel's thread to send between reads.

#include <string>

namespace sindri::agent {

enum class Queued {
  yes,
  disconnected,  // the channel is not open: the frame is dropped
  full,          // the queue is at its bound: the frame is dropped
};

class Uplink {
 public:
  virtual ~Uplink() = default;
  virtual Queued send(std::string frame) = 0;
  // True once the channel will never open again (the broker refused it for
  // good): producers stop rather than read what they could never send.
  virtual bool gave_up() const = 0;
};

// Telemetry producers, running until destroyed (which stops and joins them).
class TelemetryStreams {
 public:
  virtual ~TelemetryStreams() = default;
};

}  // namespace sindri::agent
