/* Test plugin: claims to be built against Slurm 21.08, which the host must refuse. */
const char plugin_name[] = "old_release";
const char plugin_type[] = "spank";
const unsigned int plugin_version = (21 << 16) + (8 << 8) + 5;
