// TopologyReader: the extension point that turns a topology source into builder declarations.
//
// A reader parses one format (Slurm's topology.conf, Canopy's YAML) and declares switches and
// blocks on a TopologyBuilder; the builder does the structural checks. Readers do no I/O: the
// config loader has already read the file into TopologySource::text. Readers never throw (parsers
// that do are caught inside). Implementations are stateless and thread-safe.
#pragma once

#include <memory>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "common/config/cluster_config.h"
#include "scheduler/topology/topology_builder.h"

namespace canopy::topology {

class TopologyReader {
 public:
  virtual ~TopologyReader() = default;

  // The reader's name as Slurm would spell the plugin ("topology/tree", "canopy/yaml").
  virtual absl::string_view name() const = 0;

  // Parses `source.text` and declares its switches and blocks on `builder`. InvalidArgument for
  // malformed input, with the message starting "<origin>:<line>: " where the line is counted from
  // `source.first_line`.
  virtual absl::Status Read(const config::TopologySource& source,
                            TopologyBuilder& builder) const = 0;
};

// Slurm topology.conf, both forms: tree (SwitchName= with Nodes= or Switches=, LinkSpeed=
// accepted and ignored) and block (BlockName= with Nodes=, BlockSizes=). docs/formats/topology.md.
std::unique_ptr<TopologyReader> MakeSlurmTopologyConfReader();

// Canopy's YAML `topology:` section. docs/formats/topology.md.
std::unique_ptr<TopologyReader> MakeYamlTopologyReader();

}  // namespace canopy::topology
