-- Connectors answer under the reference's names (issue 34): a stored connector names its definition
-- as the API shows it. Salesforce (destination) is the reference's SalesforceCrm; the old name stays
-- an alias of the definition, so files and clients that send it keep working. Data only.
UPDATE "connectors"
SET "connector_name" = 'SalesforceCrm'
WHERE "connector_type" = 'destination' AND lower("connector_name") = 'salesforce';
