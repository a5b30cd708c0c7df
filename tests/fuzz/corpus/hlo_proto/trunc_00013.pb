

fusion.261