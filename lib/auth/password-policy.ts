// Which passwords may be set: at least MIN_PASSWORD_LENGTH characters (the zod schemas) and not
// trivial to guess, as the zxcvbn strength estimator (@zxcvbn-ts/core, with the ~49,000 common
// passwords, keyboard layouts and word lists of @zxcvbn-ts/language-common) judges it. Checked on
// the server wherever a password is set (setup, signup, reset, password change, invitations, the
// first admin of the seed), so the dictionaries stay out of the console bundle.
//
// The threshold is score 2 of 0-4: at least 10^6 guesses by zxcvbn's estimate. Below it are the
// passwords an online guesser tries first (`aaaaaaaa`, `12345678`, `qwertyuiop`, `1qaz2wsx3edc`,
// `Password1`); a million guesses against an account is out of reach of the sign-in throttle (10 a
// window per account and address, then a doubling wait, and 50 per address over other accounts).
// Score 3 (10^8) would refuse passphrases such as `pw-x-long` or `new-password-1` that people pick
// for an account on a throttled server, for little gain online; offline, the scrypt hash carries it.
import { ZxcvbnFactory, type ZxcvbnResult } from "@zxcvbn-ts/core";
import { adjacencyGraphs, dictionary } from "@zxcvbn-ts/language-common";
import { ValidationFailed } from "@/lib/errors";

/** The lowest zxcvbn score (0-4) a new password must reach. */
export const MIN_PASSWORD_SCORE = 2;

/** zxcvbn's own estimate takes time quadratic in the length; past this, only the prefix is scored (length only adds strength). */
const SCORED_LENGTH = 64;

let estimator: ZxcvbnFactory | undefined;

function estimate(password: string, userInputs: readonly string[]): ZxcvbnResult {
  // l33tMaxSubstitutions: the l33t matcher tries every combination of look-alike characters; at
  // the default (100) a 16-character hex string took ~120 ms and 60 digits and symbols ~300 ms of
  // a request's CPU; at 10 the worst we measured was ~70 ms, with the same scores.
  estimator ??= new ZxcvbnFactory({ graphs: adjacencyGraphs, dictionary: { ...dictionary }, l33tMaxSubstitutions: 10 });
  return estimator.check(password.slice(0, SCORED_LENGTH), [...userInputs]);
}

// zxcvbn answers with keys, not text (its sentences come from a translation package); ours say what
// makes a password weak and what would make it stronger.
const WARNINGS: Record<string, string> = {
  straightRow: "it is a row of keys on the keyboard",
  keyPattern: "it is a short keyboard pattern",
  simpleRepeat: 'it repeats one character ("aaaa")',
  extendedRepeat: 'it repeats a short group of characters ("abcabc")',
  sequences: 'it is a sequence ("abcd", "1234")',
  recentYears: "it is or contains a recent year",
  dates: "it is or contains a date",
  topTen: "it is among the ten most used passwords",
  topHundred: "it is among the hundred most used passwords",
  common: "it is a commonly used password",
  similarToCommon: "it is a commonly used password with small changes",
  wordByItself: "a single word is easy to guess",
  namesByThemselves: "names on their own are easy to guess",
  commonNames: "it is a common name",
  userInputs: "it contains your name or email address",
  pwned: "it appears in known password leaks",
};

const SUGGESTIONS: Record<string, string> = {
  l33t: 'swapping letters for look-alikes ("@" for "a") does not help',
  reverseWords: "a word spelled backwards is no harder to guess",
  allUppercase: "capitals everywhere help little",
  capitalization: "a capital first letter helps little",
  dates: "leave out dates and years tied to you",
  recentYears: "leave out recent years",
  associatedYears: "leave out years tied to you",
  sequences: "leave out sequences",
  repeated: "leave out repeated characters and groups",
  longerKeyboardPattern: "leave out keyboard patterns",
};

/** Why a password would be refused, as a predicate of the field ("is too easy to guess: …"), or null. */
export function passwordWeakness(password: string, userInputs: readonly string[] = []): string | null {
  // An email counts whole and by its parts (`jdoe` of jdoe@example.com), a name by its words.
  const inputs = userInputs.flatMap((s) => [s, ...s.split(/[@.\s_+-]+/)]).filter((s) => s.length > 2);
  const result = estimate(password, inputs);
  if (result.score >= MIN_PASSWORD_SCORE) return null;
  const why = result.feedback.warning ? WARNINGS[result.feedback.warning] : undefined;
  const hints = result.feedback.suggestions.map((s) => SUGGESTIONS[s]).filter((s): s is string => s !== undefined);
  return [
    `is too easy to guess${why ? ` (${why})` : ""}`,
    `; make it stronger with a few uncommon words or a longer mix of characters${hints.length > 0 ? `, and ${hints.join(", ")}` : ""}`,
  ].join("");
}

/** Throws 422 on the field at `path` (e.g. "member.password") for a password too easy to guess. */
export function assertStrongPassword(password: string, path: string, userInputs: readonly string[] = []): void {
  const weakness = passwordWeakness(password, userInputs);
  if (weakness !== null) throw ValidationFailed.field(path, weakness);
}
