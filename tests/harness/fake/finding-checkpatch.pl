#!/usr/bin/perl
# A checkpatch.pl that reports one finding, of type FAKE_FINDING, on every
# patch (tests/harness/run.sh, host/checkpatch/*).
print "$ARGV[-1]:1: WARNING:FAKE_FINDING: a finding on every patch\n";
exit 1;
