# a flush in flight across a cut counts as the cut's report: a write completed after it was sent and dropped by the cut goes unreported, the first flush after the restore succeeds => vm 46-inflight-cut
# file: module/ftlblk.h
# changes: 2
s/^\t\tftlblk_flush_failed(dev, gen);$/\t\tftlblk_flush_failed(dev, READ_ONCE(dev->cuts_seen));/
