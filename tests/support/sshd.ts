// A private OpenSSH server for the SFTP tests: Debian's /usr/sbin/sshd in the foreground on a free
// loopback port, with a throwaway host key, its own sshd_config and a throwaway system user (a
// password for password auth, a key for key auth) whose home, a temp directory, is the files root.
// Password auth needs a real account (sshd reads /etc/shadow when UsePAM is off), so the helper
// creates one with useradd + chpasswd and removes it with userdel when the server stops; users left
// by a test process that died are removed at the next start (their GECOS field names the pid).
// The account can only do SFTP (ForceCommand internal-sftp, no forwarding, no TTY, nologin shell);
// root logins stay off. Needs root (as here and in CI); the tests skip otherwise.
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, chmodSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { freePort } from "./free-port";

const SSHD = "/usr/sbin/sshd";
const USER_PREFIX = "dsftp";
const GECOS_TAG = "datasync sftp test pid=";

export interface SshdServer {
  host: string;
  port: number;
  username: string;
  password: string;
  /** The user's home: relative remote paths resolve here. */
  root: string;
  /** The client key (OpenSSH PEM) authorized for the user. */
  privateKey: string;
  /** The host key's fingerprint as `ssh-keygen -l` prints it: `SHA256:…`. */
  hostKeyFingerprint: string;
  /** Writes a file under the user's home (parents created), owned by the user as if it had uploaded it. */
  put(relativePath: string, content: string | Buffer): string;
  /** Makes everything under the home the user's again (after the test wrote there as root). */
  own(): void;
  stop(): Promise<void>;
}

/** Why the real server cannot run here, or undefined when it can. */
export function sshdUnavailable(): string | undefined {
  // CI installs openssh-server and runs as root (.ci/run): there a missing sshd must fail the
  // tests, never skip them silently.
  if (process.env.CI) return undefined;
  if (!existsSync(SSHD)) return `${SSHD} is not installed (Debian package openssh-server)`;
  if (process.getuid?.() !== 0) return "creating the throwaway SFTP test user needs root";
  return undefined;
}

function run(command: string, args: string[], input?: string): string {
  return execFileSync(command, args, { input, encoding: "utf8", stdio: ["pipe", "pipe", "pipe"] });
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Removes test users whose creating process is gone (a crashed or killed test run). */
function sweepStaleUsers(): void {
  for (const line of readFileSync("/etc/passwd", "utf8").split("\n")) {
    const [name, , , , gecos] = line.split(":");
    if (!name?.startsWith(USER_PREFIX) || !gecos?.startsWith(GECOS_TAG)) continue;
    const pid = Number(gecos.slice(GECOS_TAG.length));
    if (Number.isInteger(pid) && !pidAlive(pid)) removeUser(name);
  }
}

function removeUser(name: string): void {
  try {
    run("userdel", [name]);
  } catch {
    // Already gone.
  }
}

function waitForPort(port: number, child: ChildProcess, log: () => string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  return new Promise((resolve, reject) => {
    const attempt = () => {
      if (child.exitCode !== null) return reject(new Error(`sshd exited: ${log()}`));
      const socket = connect({ host: "127.0.0.1", port });
      socket.once("data", () => {
        socket.destroy();
        resolve();
      });
      socket.once("error", () => {
        socket.destroy();
        if (Date.now() > deadline) reject(new Error(`sshd did not listen on ${port}: ${log()}`));
        else setTimeout(attempt, 100);
      });
    };
    attempt();
  });
}

export async function startSshd(): Promise<SshdServer> {
  const why = sshdUnavailable();
  if (why) throw new Error(`Cannot start sshd: ${why}.`);
  sweepStaleUsers();
  // sshd's privilege separation directory (Debian's service unit creates it; the service is off here).
  mkdirSync("/run/sshd", { recursive: true, mode: 0o755 });

  const dir = mkdtempSync(join(tmpdir(), "sshd-"));
  chmodSync(dir, 0o755);
  const home = join(dir, "home");
  const username = `${USER_PREFIX}${randomBytes(5).toString("hex")}`;
  const password = `Pw-${randomBytes(12).toString("base64url")}`;
  const port = await freePort();

  run("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", join(dir, "host_key")]);
  run("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", join(dir, "client_key")]);
  writeFileSync(join(dir, "authorized_keys"), readFileSync(join(dir, "client_key.pub")));
  const hostKeyFingerprint = run("ssh-keygen", ["-l", "-E", "sha256", "-f", join(dir, "host_key.pub")]).split(" ")[1];

  mkdirSync(join(dir, "skel"));
  run("useradd", ["--home-dir", home, "--create-home", "--skel", join(dir, "skel"), "--shell", "/usr/sbin/nologin", "--comment", `${GECOS_TAG}${process.pid}`, username]);
  let child: ChildProcess | undefined;
  try {
    run("chpasswd", [], `${username}:${password}\n`);
    writeFileSync(
      join(dir, "sshd_config"),
      [
        `ListenAddress 127.0.0.1`,
        `Port ${port}`,
        `HostKey ${join(dir, "host_key")}`,
        `PidFile ${join(dir, "sshd.pid")}`,
        `AuthorizedKeysFile ${join(dir, "authorized_keys")}`,
        `PasswordAuthentication yes`,
        `KbdInteractiveAuthentication no`,
        `PubkeyAuthentication yes`,
        `UsePAM no`,
        `PermitRootLogin no`,
        `AllowUsers ${username}`,
        `StrictModes no`,
        `Subsystem sftp internal-sftp`,
        `ForceCommand internal-sftp`,
        `DisableForwarding yes`,
        `PermitTTY no`,
        `MaxAuthTries 3`,
        `LogLevel ERROR`,
        "",
      ].join("\n"),
    );
    // -D: stay in the foreground (our child, killed on stop); -e: log to stderr.
    child = spawn(SSHD, ["-D", "-e", "-f", join(dir, "sshd_config")], { stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr?.on("data", (d: Buffer) => {
      if (stderr.length < 8000) stderr += d.toString();
    });
    await waitForPort(port, child, () => stderr);
  } catch (err) {
    child?.kill("SIGKILL");
    removeUser(username);
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }

  const started = child;
  return {
    host: "127.0.0.1",
    port,
    username,
    password,
    root: home,
    privateKey: readFileSync(join(dir, "client_key"), "utf8"),
    hostKeyFingerprint,
    put(relativePath, content) {
      const file = join(home, relativePath);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, content);
      run("chown", ["-R", `${username}:`, home]);
      return file;
    },
    own() {
      run("chown", ["-R", `${username}:`, home]);
    },
    async stop() {
      if (started.exitCode === null) {
        const exited = new Promise((resolve) => started.once("exit", resolve));
        started.kill("SIGTERM");
        await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 3000))]);
        if (started.exitCode === null) started.kill("SIGKILL");
      }
      // Sessions still open run as the user: userdel refuses while they live, so end them first.
      try {
        run("pkill", ["-KILL", "-u", username]);
      } catch {
        // None left.
      }
      removeUser(username);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
