// Rules of this house that ESLint does not ship (docs/conventions.md 11 and 12).

/** Documents that live beside the repository, not in it: a reader of the code cannot open them. */
const OUTSIDE_DOCUMENTS = /\b(?:behaviou?r|interface|review-\d{4}-\d{2}-\d{2})\.md\b|\bshared\/(?:spec|reference|design)\//;

/** @type {import("eslint").Rule.RuleModule} */
const noOutsideCitations = {
  meta: {
    type: "suggestion",
    docs: { description: "Comments and texts cite documents in this repository only." },
    messages: {
      outside:
        "This cites a document outside the repository ({{found}}); point at docs/ (architecture.md, coming-from-multiwoven.md) or say it in place.",
    },
    schema: [],
  },
  create(context) {
    const check = (node, text) => {
      const found = OUTSIDE_DOCUMENTS.exec(text);
      if (found) context.report({ node, messageId: "outside", data: { found: found[0] } });
    };
    return {
      Program() {
        for (const comment of context.sourceCode.getAllComments()) check(comment, comment.value);
      },
      Literal(node) {
        if (typeof node.value === "string") check(node, node.value);
      },
      TemplateElement(node) {
        check(node, node.value.raw);
      },
    };
  },
};

export const houseRules = { rules: { "no-outside-citations": noOutsideCitations } };
