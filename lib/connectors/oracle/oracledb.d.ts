// node-oracledb ships no type declarations; driver.ts describes the part it uses (OracleDbModule).
declare module "oracledb";
