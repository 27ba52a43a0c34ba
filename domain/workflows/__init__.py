"""Alerts to remediation: the workflow catalog, observable-facts incident context, the RCA contract.

The seed `workflow-selection-contract.md` is the specification: the prompt carries observable facts
only, the model performs an independent root-cause analysis, the system searches the catalog by the
RCA's signal type and severity with the business labels as filters, the model picks workflows and
fills their parameters, and the reply is validated rule by rule before anything is offered. Nothing
runs without a person's approval.
"""
