// GET /api/v1/syncs/configurations: the mapping types a sync configuration may use. Key order and
// shape are fixed by the reference server's answer; only the descriptions are ours.
import { TIMESTAMP_FORMAT } from "./templates";

export const syncConfigurationsPayload = {
  data: {
    configurations: {
      catalog_mapping_types: {
        standard: "",
        static: {
          string: { type: "string", description: "A fixed text value sent for every record." },
          number: { type: "float", description: "A fixed number (integer or decimal) sent for every record." },
          boolean: { type: "boolean", description: "A fixed true or false sent for every record." },
          null: { type: "null", description: "An explicit null sent for every record (clears the field)." },
        },
        template: {
          variable: {
            current_timestamp: {
              type: "datetime",
              description: "The time the record is mapped, in UTC, e.g. 2026-02-24T12:00:00.000+0000.",
              value: `{{ 'now' | date: '${TIMESTAMP_FORMAT}' }}`,
            },
          },
          filter: {
            cast: {
              description: "Converts the value to 'string', 'number' or 'boolean'; a value that cannot be converted fails the record.",
              value: "{{ cast: '<string>' }}",
            },
            regex_replace: {
              description:
                "Replaces every match of a regular expression (RE2 syntax: no backreferences or lookaround) with the replacement text ($1, $<name> and $& insert matched text); flags: i (ignore case), m (multiline), x (extended: whitespace and # comments in the pattern are ignored).",
              value: "{{ regex_replace : '<[a-zA-Z]>', '<replacement>', '<flags>' }}",
            },
          },
        },
      },
    },
  },
} as const;
