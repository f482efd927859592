# a write-zeroes, discard or write whose cached effect a power cut dropped completes successfully after the restore => vm 46-inflight-cut
# file: module/ftlblk.h
# changes: 2
s/if (sts == BLK_STS_OK \&\& READ_ONCE(dev->cuts_seen) != cmd->gen \&\&/if (false \&\&/
