#!/usr/bin/perl
# A checkpatch.pl that dies before it checks anything
die "checkpatch crashed\n";
