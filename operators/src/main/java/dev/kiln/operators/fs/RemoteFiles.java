package dev.kiln.operators.fs;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.apache.flink.core.fs.FSDataOutputStream;
import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;

/**
 * Copies between the local disk and any Flink file system. Object stores have no rename, so files
 * are written in place; readers never see them before the manifest and {@code CURRENT} that are
 * written after them.
 */
public final class RemoteFiles {
  private RemoteFiles() {}

  /** Uploads every file under {@code localDir} to {@code remoteDir}, keeping relative paths. */
  public static void uploadDir(java.nio.file.Path localDir, String remoteDir) throws IOException {
    List<java.nio.file.Path> files;
    try (Stream<java.nio.file.Path> walk = Files.walk(localDir)) {
      files = walk.filter(Files::isRegularFile).toList();
    }
    for (java.nio.file.Path f : files) {
      String rel = localDir.relativize(f).toString().replace('\\', '/');
      upload(f, new Path(remoteDir, rel));
    }
  }

  public static void upload(java.nio.file.Path local, Path remote) throws IOException {
    FileSystem fs = remote.getFileSystem();
    try (InputStream in = Files.newInputStream(local);
        FSDataOutputStream out = fs.create(remote, FileSystem.WriteMode.OVERWRITE)) {
      in.transferTo(out);
    }
  }

  public static void download(Path remote, java.nio.file.Path local) throws IOException {
    Files.createDirectories(local.getParent());
    java.nio.file.Path tmp = local.resolveSibling("." + local.getFileName() + ".part");
    try (InputStream in = remote.getFileSystem().open(remote)) {
      Files.copy(in, tmp, StandardCopyOption.REPLACE_EXISTING);
    }
    Files.move(tmp, local, StandardCopyOption.REPLACE_EXISTING);
  }

  /** Downloads every file under {@code remoteDir} into {@code localDir}. */
  public static void downloadDir(Path remoteDir, java.nio.file.Path localDir) throws IOException {
    FileSystem fs = remoteDir.getFileSystem();
    for (FileStatus s : list(fs, remoteDir)) {
      java.nio.file.Path target = localDir.resolve(s.getPath().getName());
      if (s.isDir()) {
        downloadDir(s.getPath(), target);
      } else {
        download(s.getPath(), target);
      }
    }
  }

  private static List<FileStatus> list(FileSystem fs, Path dir) throws IOException {
    FileStatus[] st = fs.listStatus(dir);
    return st == null ? List.of() : new ArrayList<>(List.of(st));
  }

  /** The text of a small remote file, or {@code null} if it does not exist. */
  public static String readString(Path remote) throws IOException {
    FileSystem fs = remote.getFileSystem();
    if (!fs.exists(remote)) {
      return null;
    }
    try (InputStream in = fs.open(remote)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  public static void writeBytes(Path remote, byte[] bytes) throws IOException {
    try (OutputStream out = remote.getFileSystem().create(remote, FileSystem.WriteMode.OVERWRITE)) {
      out.write(bytes);
    }
  }
}
