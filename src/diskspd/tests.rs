//! DiskSpd's command lines against DiskSpd 2.2's documented semantics
//! (its usage text and CmdLineParser.cpp), flag by flag.

use super::command::{flags, for_job};
use super::lower::job_file;
use super::parse::{parse, DiskSpdAccess, DiskSpdCommand, DiskSpdRate, WriteData};

fn ok(line: &str) -> DiskSpdCommand {
    parse(line).unwrap_or_else(|e| panic!("{line}: {e}"))
}

fn refused(line: &str, why: &str) {
    let e = parse(line).expect_err(line);
    assert!(e.contains(why), "{line}: expected {why:?} in: {e}");
    assert_eq!(e.lines().count(), 1, "{e}");
}

/// The write-up's command: eight threads, two I/Os each in flight, 4 KiB
/// sequential reads (no -r), 10 s after a 10 s warm-up, unbuffered and
/// write-through (-Suw), latency and IOPS series.
#[test]
fn the_write_ups_line_means_what_diskspd_means() {
    let c = ok("diskspd.exe -t8 -w0 -b4k -W10 -o2 -d10 -Suw -D -L testfile.dat");
    assert_eq!(c.threads, 8);
    assert_eq!(c.outstanding, 2);
    assert_eq!(c.write_percent, 0);
    assert_eq!(c.block_size, 4096);
    assert_eq!(c.access, DiskSpdAccess::Sequential { stride: 4096 });
    assert_eq!((c.duration_s, c.warmup_s, c.cooldown_s), (10, 10, 0));
    assert!(!c.os_cache && c.write_through);
    assert_eq!(c.target, "testfile.dat");
    assert!(!c.no_affinity);
    // The same with -w100, -t12, -o16 -d300 and -Sh (= -Suw).
    let w = ok("-t12 -w100 -b4k -W10 -o16 -d300 -Sh -D -L C:\\test\\io.dat");
    assert_eq!(
        (w.threads, w.outstanding, w.write_percent, w.duration_s),
        (12, 16, 100, 300)
    );
    assert!(!w.os_cache && w.write_through);
    assert_eq!(w.target, "C:\\test\\io.dat");
}

#[test]
fn defaults_are_diskspds() {
    let c = ok("testfile.dat");
    assert_eq!(c.block_size, 64 << 10);
    assert_eq!((c.threads, c.outstanding, c.write_percent), (1, 2, 0));
    assert_eq!(c.access, DiskSpdAccess::Sequential { stride: 64 << 10 });
    assert_eq!((c.duration_s, c.warmup_s, c.cooldown_s), (10, 5, 0));
    // Cached, no write-through, DiskSpd's 0-255 pattern, seed 0.
    assert!(c.os_cache && !c.write_through);
    assert_eq!(c.write_data, WriteData::Pattern);
    assert_eq!(c.seed, Some(0));
    assert_eq!(c.create_size, None);
}

#[test]
fn sizes_take_diskspds_suffixes_and_blocks_of_b_wherever_b_stands() {
    // -b is read first: -c100b counts blocks of 8 KiB although -b comes later.
    let c = ok("-c100b -r2b -b8K f.dat");
    assert_eq!(c.create_size, Some(800 << 10));
    assert_eq!(c.access, DiskSpdAccess::Random { align: 16 << 10 });
    let c = ok("-c2G -B1m -f1T -T4k f.dat");
    assert_eq!(c.create_size, Some(2 << 30));
    assert_eq!(c.base_offset, 1 << 20);
    assert_eq!(c.max_offset, Some(1 << 40));
    assert_eq!(c.thread_stride, 4096);
    let c = ok("-B4K:1M f.dat");
    assert_eq!(
        (c.base_offset, c.max_offset),
        (4096, Some(4096 + (1 << 20)))
    );
    refused("-c10Q f.dat", "not a DiskSpd size suffix");
    refused("-b1b f.dat", "a block count (b) is not a block size");
    refused("-cK f.dat", "not a size");
}

#[test]
fn the_cache_letters_and_their_conflicts() {
    let s = |l: &str| {
        let c = ok(&format!("{l} f.dat"));
        (c.os_cache, c.write_through)
    };
    assert_eq!(s("-S"), (false, false));
    assert_eq!(s("-Su"), (false, false));
    assert_eq!(s("-Sb"), (true, false));
    assert_eq!(s("-Sw"), (true, true));
    assert_eq!(s("-Sbw"), (true, true));
    assert_eq!(s("-Swu"), (false, true));
    assert_eq!(s("-Sh"), (false, true));
    assert_eq!(s("-h"), (false, true));
    refused("-Sb -Su f.dat", "cache mode given twice");
    refused("-Sh -Sw f.dat", "write-through given twice");
    refused("-Sw -Sh f.dat", "in conflict");
    refused("-Sm f.dat", "memory-mapped");
    refused("-Sr f.dat", "remote caching");
    refused("-Sx f.dat", "not a -S letter");
}

#[test]
fn access_patterns_and_their_conflicts() {
    assert_eq!(ok("-r f").access, DiskSpdAccess::Random { align: 64 << 10 });
    assert_eq!(
        ok("-b4k -r f").access,
        DiskSpdAccess::Random { align: 4096 }
    );
    assert_eq!(
        ok("-b4k -r512 f").access,
        DiskSpdAccess::Random { align: 512 }
    );
    assert_eq!(
        ok("-b4k -s8k f").access,
        DiskSpdAccess::Sequential { stride: 8192 }
    );
    refused("-r -s f", "together");
    refused("-r -r f", "twice");
    refused("-r0 f", "invalid alignment");
    refused("-rs50 f", "mixed random and sequential");
    refused("-rdpct10/90 f", "random distributions");
    refused("-si f", "interlocked");
}

#[test]
fn counts_are_strict_where_diskspd_reads_a_prefix() {
    refused("-o2x f", "DiskSpd reads this as -o2");
    refused("-t0 f", "at least 1");
    refused("-w f", "no write ratio");
    refused("-w101 f", "0 to 100");
    refused("-t2 -F4 f", "-t and -F together");
    refused("-o2 -O4 f", "-o and -O together");
    assert_eq!(ok("-F4 -O8 f").threads, 4);
    assert_eq!(ok("-g100 f").rate, Some(DiskSpdRate::BytesPerMs(100)));
    assert_eq!(ok("-g500i f").rate, Some(DiskSpdRate::Iops(500)));
    assert_eq!(ok("-z f").seed, None);
    assert_eq!(ok("-z42 f").seed, Some(42));
    assert_eq!(ok("-Zr f").write_data, WriteData::RandomPerWrite);
    assert_eq!(ok("-Z1M f").write_data, WriteData::RandomBuffer(1 << 20));
}

#[test]
fn what_candor_does_not_run_is_refused_by_name() {
    for (line, why) in [
        ("-Xprofile.xml", "XML profile"),
        ("-x f", "completion routines"),
        ("-a0,1 f", "pinning threads"),
        ("-p f", "parallel"),
        ("-i4 -j10 f", "bursts"),
        ("-I1 f", "priority"),
        ("-l f", "large-page"),
        ("-Z f", "zero-filled writes"),
        ("-Z1M,src.bin f", "read from a file"),
        ("-ePROCESS f", "ETW"),
        ("-ysname f", "synchronisation events"),
        ("-fr f", "access hints"),
        ("-Rp f", "-Rp only prints"),
        ("-q f", "not a DiskSpd 2.2 parameter"),
        ("-b4k #1", "a physical drive"),
        ("-b4k D:", "a whole partition"),
        ("-b4k a.dat b.dat", "2 targets"),
        ("-b4k f.dat -d10", "before the targets"),
        ("-b4k", "no target"),
        ("-b4k \"a b.dat", "not closed"),
    ] {
        refused(line, why);
    }
    // A quoted path with spaces and a Unix path are targets; -a/-ag and -n are accepted.
    assert_eq!(
        ok("-ag -n \"C:\\my tests\\io.dat\"").target,
        "C:\\my tests\\io.dat"
    );
    assert_eq!(ok("/d10 /mnt/data/io.dat").target, "/mnt/data/io.dat");
    assert_eq!(ok("/d20 /mnt/data/io.dat").duration_s, 20);
}

#[test]
fn a_command_lowers_to_the_fio_job_that_does_its_io() {
    let c = ok("-t8 -w0 -b4k -W10 -o2 -d10 -Suw -D -L testfile.dat");
    let job = job_file(&c, "io_uring", 1 << 30).unwrap();
    let lines: Vec<&str> = job.text.lines().collect();
    for want in [
        "[diskspd]",
        "filename=candor-diskspd.dat",
        "ioengine=io_uring",
        "bs=4096",
        "rw=read",
        "iodepth=2",
        "numjobs=8",
        "size=1073741824",
        "direct=1",
        "sync=dsync",
        "runtime=10",
        "time_based=1",
        "ramp_time=10",
        "randseed=0",
    ] {
        assert!(lines.contains(&want), "{want} missing in:\n{}", job.text);
    }
    // Every thread from the base offset, as DiskSpd's (no -T).
    assert!(!job.text.contains("offset_increment"), "{}", job.text);
    let notes = job.notes.join("\n");
    assert!(notes.contains("no -c"), "{notes}");
    assert!(notes.contains("pins its threads"), "{notes}");
    // Mixed, random, aligned, offset, stride, rate, created size.
    let c = ok("-w30 -b8k -r4k -o16 -t2 -c2G -B1M -T64K -g2000 -Z1M -n -W0 -d5 f.dat");
    let job = job_file(&c, "libaio", 1 << 30).unwrap();
    for want in [
        "rw=randrw",
        "rwmixwrite=30",
        "blockalign=4096",
        "offset=1048576",
        "size=2146435072",
        "offset_increment=65536",
        "direct=0",
        "rate=2000000",
        "ramp_time=0",
    ] {
        assert!(
            job.text.lines().any(|l| l == want),
            "{want} missing in:\n{}",
            job.text
        );
    }
    assert!(!job.text.contains("sync=dsync"));
    let notes = job.notes.join("\n");
    assert!(notes.contains("-Z1048576"), "{notes}");
    assert!(!notes.contains("pins its threads"), "{notes}");
    // A sequential stride longer than the block skips the gap.
    let job = job_file(&ok("-b4k -s16k -w100 f.dat"), "psync", 1 << 20).unwrap();
    assert!(job.text.contains("rw=write:12288"), "{}", job.text);
    assert!(job.notes.join(" ").contains("0-255 byte pattern"));
    assert!(job_file(&ok("-b8k -s4k f.dat"), "psync", 1 << 20).is_err());
    assert!(job_file(&ok("-d0 f.dat"), "psync", 1 << 20).is_err());
}

/// Every CrystalDiskMark profile of the battery has a DiskSpd line, and
/// DiskSpd's parser (this one, read from DiskSpd's) reads it back as the
/// same job.
#[test]
fn every_cdm_profile_has_a_diskspd_line_that_reads_back_as_the_same_job() {
    use crate::battery::profiles::{profile, PROFILE_NAMES};
    let mut lines = 0;
    for name in PROFILE_NAMES {
        for test in profile(name).unwrap() {
            let mut job = crate::disk::JobSpec::new(test.rw.clone(), test.bs, test.iodepth);
            job.numjobs = test.numjobs;
            job.fsync = test.fsync;
            job.rwmixread = test.rwmixread.unwrap_or(50);
            let spec = job.to_spec(crate::disk::EngineKind::IoUring);
            let line = match for_job(&spec, "D:\\candor\\test.dat") {
                Ok(l) => l,
                Err(why) => {
                    // Only what DiskSpd has no word for: syncs after writes.
                    assert!(test.fsync > 0, "{name}: {why}");
                    continue;
                }
            };
            lines += 1;
            let back = ok(&line);
            assert_eq!(back.block_size, test.bs, "{line}");
            assert_eq!(back.threads, test.numjobs, "{line}");
            assert_eq!(back.outstanding, test.iodepth, "{line}");
            let writes = match test.rw.as_str() {
                "read" | "randread" => 0,
                "write" | "randwrite" => 100,
                _ => 100 - test.rwmixread.unwrap(),
            };
            assert_eq!(back.write_percent, writes, "{line}");
            assert_eq!(
                matches!(back.access, DiskSpdAccess::Random { .. }),
                test.rw.is_random(),
                "{line}"
            );
            assert_eq!((back.duration_s, back.warmup_s), (10, 2), "{line}");
            assert!(!back.os_cache && !back.write_through, "{line}");
            assert_eq!(back.create_size, Some(1 << 30), "{line}");
            assert!(back.no_affinity, "{line}");
            if writes > 0 {
                assert_eq!(back.write_data, WriteData::RandomPerWrite, "{line}");
            }
            // The canonical flags print the same command again.
            assert_eq!(
                format!("diskspd {} D:\\candor\\test.dat", flags(&back).join(" ")),
                line
            );
        }
    }
    assert_eq!(lines, 14, "every test of every profile but FSYNC4K");
}
