# The VM image's files (vm/image, vm/test): what can be checked without
# building or booting the image. `make vm` and `make vm-test` take about
# 10 minutes each under emulation, too long for CI; this keeps their
# scripts, the bind unit's config scanner, the seed and the VM's config
# from rotting (vm/test/check-vm-files.sh says what it checks).

test {vm/: scripts parse, the VM config passes --check-config, vbrd-bind finds its NICs, the seed holds the config} {
    set script [file join $::vbrd::root vm test check-vm-files.sh]
    set code [catch {exec timeout 60 $script $::vbrd::bin 2>@1} out]
    assert_equal $code 0 "check-vm-files.sh failed:\n$out"
}
