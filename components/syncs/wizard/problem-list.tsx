/** The problems that block a step or section, each a sentence, shown right under its fields. */
export function ProblemList({ problems }: { problems: string[] }) {
  if (problems.length === 0) return null;
  return (
    <ul role="alert" className="list-disc rounded-md border border-red-200 bg-red-50 py-2 pl-8 pr-3 text-sm text-red-800">
      {problems.map((e) => (
        <li key={e}>{e}</li>
      ))}
    </ul>
  );
}
