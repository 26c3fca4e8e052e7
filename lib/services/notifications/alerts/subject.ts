// Subjects of alert mails are the product's words: the workspace's own text in them (rule, channel
// and sync names) is quoted, cut short and made one plain line, so a subject can neither carry a
// header of its own (line breaks) nor pass for a message from someone else (a long text of the
// Member's choosing). Pure, so the rules are tested beside it (subject.test.ts). The invitation mail
// (../account-mails.ts) quotes the workspace's and the inviter's names the same way.

/** The most characters of one piece of workspace text a subject quotes. */
export const SUBJECT_TEXT_MAX = 40;

/** The most characters of a whole subject, even one stored before these rules. */
export const SUBJECT_MAX = 160;

// Control characters (C0, C1, DEL), format characters (bidi overrides, zero-width) and the Unicode
// line and paragraph separators: none belongs in a one-line header.
const UNSAFE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]+/gu;

/** One plain line: unsafe characters become a space, runs of spaces one. */
export const oneLine = (text: string): string => text.replace(UNSAFE, " ").replace(/\s+/g, " ").trim();

/** The text cut to `max` characters (code points), an ellipsis marking the cut. */
function cut(text: string, max: number): string {
  const chars = [...text];
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join("").trimEnd()}…`;
}

/** Workspace text as a subject quotes it: one line, at most SUBJECT_TEXT_MAX characters, in double quotes. */
export const quoted = (text: string, max = SUBJECT_TEXT_MAX): string => `"${cut(oneLine(text).replace(/"/g, "'"), max)}"`;

/** A subject as sent: one line of at most SUBJECT_MAX characters (also for events stored earlier). */
export const safeSubject = (subject: string): string => cut(oneLine(subject), SUBJECT_MAX);
